#!/usr/bin/env bash
# The C API: header freshness and stand-alone compilation (C99, C11, C++11, C++17), the host
# builds of the C library (no_std staticlib and cdylib: link needs, exported symbols), C output
# vs the Rust std reference build bit for bit (f64) and vs the Rust f32 core (f32), the bad-input
# matrix through the C ABI, all C programs once more under ASan + UBSan, no panic path reachable
# from the C API, two threads of independent samplers under ThreadSanitizer, and one SVGD
# iteration in phases on several threads under ThreadSanitizer; K chains in one sgs_*_run_batch =
# K separate runs, from C; a checkpoint exported, filed, imported and resumed bit for bit; TunaMH
# from C.
set -uo pipefail
cd "$(dirname "$0")/.."
build=ffi-tests/build
mkdir -p "$build"
lib=target/release/libsgsample.a
so=target/release/libsgsample.so
warn=(-Wall -Wextra -Wpedantic -Werror)
# No fused multiply-add in the C models: Rust never contracts, so C must not either.
cflags=(-std=c99 -O2 -ffp-contract=off "${warn[@]}" -Iinclude -Iffi-tests)
san=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
# check NAME COMMAND... (passed/failed counts, logs in $build).
source scripts/suite-check.sh

header_alone() {
  gcc -std=c99 "${warn[@]}" -fsyntax-only -x c include/sgsample.h &&
    gcc -std=c11 "${warn[@]}" -fsyntax-only -x c include/sgsample.h &&
    g++ -std=c++11 "${warn[@]}" -fsyntax-only -x c++ include/sgsample.h &&
    g++ -std=c++17 "${warn[@]}" -fsyntax-only -x c++ include/sgsample.h
}

version_matches() {
  local v major minor patch
  v=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
  IFS=. read -r major minor patch <<<"$v"
  grep -qx "#define SGS_VERSION_STRING \"$v\"" include/sgsample.h &&
    grep -qx "#define SGS_VERSION_MAJOR $major" include/sgsample.h &&
    grep -qx "#define SGS_VERSION_MINOR $minor" include/sgsample.h &&
    grep -qx "#define SGS_VERSION_PATCH $patch" include/sgsample.h &&
    echo "Cargo.toml $v = header"
}

# The library as shipped: release profile (panic = abort, LTO). With LTO, core's unwinding
# landing pads are compiled under panic = abort and nothing references rust_eh_personality;
# that is checked here rather than papered over with a stub symbol (see capi/src/lib.rs).
no_personality() {
  ! nm -u "$lib" 2>/dev/null | grep rust_eh_personality >/dev/null && echo "no undefined rust_eh_personality"
}

# No panic machinery is reachable from the C API: in the .so (linked with --gc-sections by
# cargo) and in a program linking the .a with --gc-sections (scripts/no-panic-linked.sh). The
# panic handler aborts, but it must never be reachable at all.
no_panic_path() {
  if nm -C "$so" | grep -iE 'panic|slice_index|len_mismatch|bounds_check|rust_begin_unwind'; then
    echo "a panic path is linked into $so"
    return 1
  fi
  echo "$so: no panic path" && bash scripts/no-panic-linked.sh "$lib" "$build/no-panic" gcc -O2
}

# The shared library exports exactly the functions the header declares, nothing else.
cdylib_exports_only_sgs() {
  local other
  other=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v '^sgs_' || true)
  echo "exported: $(nm -D --defined-only "$so" | grep -c ' sgs_') sgs_ symbols"
  [ -z "$other" ] || { echo "non-sgs_ exports: $other"; return 1; }
  diff <(nm -D --defined-only "$so" | awk '{print $3}' | sort) \
    <(grep -o '\bsgs_[a-z0-9_]*(' include/sgsample.h | tr -d '(' | sort -u) &&
    echo "exports == functions declared in include/sgsample.h"
}

link_plain() {
  gcc "${cflags[@]}" examples-c/minimal.c "$lib" -lm -o "$build/minimal" && "$build/minimal"
}

link_cxx() {
  g++ -std=c++17 -O2 "${warn[@]}" -Iinclude -x c++ examples-c/minimal.c -x none "$lib" -lm \
    -o "$build/minimal_cxx" && "$build/minimal_cxx"
}

# include/sgsample.hpp: the same bits as the C API, callbacks' exceptions and rejections, clones,
# moves and bad input (ffi-tests/cxx_wrapper.cpp), in C++17 and C++20 with exceptions and in
# C++17 with -fno-exceptions (the try_ API alone); -Werror on all warnings.
cxx_wrapper() {
  local std
  for std in c++17 c++20; do
    g++ -std=$std -O2 -ffp-contract=off "${warn[@]}" -Iinclude ffi-tests/cxx_wrapper.cpp "$lib" -lm \
      -o "$build/cxx_wrapper_$std" && "$build/cxx_wrapper_$std" || return 1
  done
  g++ -std=c++17 -O2 -fno-exceptions -ffp-contract=off "${warn[@]}" -Iinclude ffi-tests/cxx_wrapper.cpp \
    "$lib" -lm -o "$build/cxx_wrapper_noexcept" && "$build/cxx_wrapper_noexcept"
}

# The program records the library's soname (libsgsample.so.0.MINOR, capi/build.rs), which cargo
# does not write: a link of that name in the build directory stands in for an install.
link_cdylib() {
  local soname
  soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
  [ -n "$soname" ] || { echo "$so has no soname"; return 1; }
  ln -sf "$PWD/$so" "$build/$soname" &&
    gcc "${cflags[@]}" examples-c/minimal.c -Ltarget/release -lsgsample -lm -o "$build/minimal_so" &&
    LD_LIBRARY_PATH="$build" "$build/minimal_so" &&
    LD_LIBRARY_PATH="$build" ldd "$build/minimal_so" | grep "$soname => $build/$soname" >/dev/null
}

repro() {
  local tag=$1
  shift
  gcc "${cflags[@]}" ${1+"$@"} ffi-tests/repro.c "$lib" -lm -o "$build/repro$tag" &&
    "$build/repro$tag" >"$build/repro$tag.txt" &&
    cmp "$build/repro$tag.txt" "$build/reference.txt" &&
    echo "$(wc -l <"$build/reference.txt") lines identical"
}

bad_inputs() {
  gcc "${cflags[@]}" ffi-tests/bad_inputs.c "$lib" -lm -o "$build/bad_inputs" &&
    "$build/bad_inputs"
}

# K chains through sgs_*_run_batch from C = K separate runs, bit for bit (under ASan + UBSan too).
batch_vs_separate() {
  gcc "${cflags[@]}" ffi-tests/batch.c "$lib" -lm -o "$build/batch" && "$build/batch" &&
    gcc "${cflags[@]}" "${san[@]}" ffi-tests/batch.c "$lib" -lm -o "$build/batch_san" &&
    "$build/batch_san" >/dev/null
}

# A checkpoint exported, written to a file, read back and imported continues bit for bit (under
# ASan + UBSan too).
checkpoint_resume() {
  gcc "${cflags[@]}" ffi-tests/checkpoint.c "$lib" -lm -o "$build/checkpoint" && "$build/checkpoint" &&
    gcc "${cflags[@]}" "${san[@]}" ffi-tests/checkpoint.c "$lib" -lm -o "$build/checkpoint_san" &&
    "$build/checkpoint_san" >/dev/null
}

# TunaMH from C (double and float): same bits run against steps, copies and a second run, the
# chunks and counts the callbacks see, both passes, REJECT and NaN, the float chain's decisions
# (under ASan + UBSan too).
tunamh_c() {
  gcc "${cflags[@]}" ffi-tests/tunamh.c "$lib" -lm -o "$build/tunamh" && "$build/tunamh" &&
    gcc "${cflags[@]}" "${san[@]}" ffi-tests/tunamh.c "$lib" -lm -o "$build/tunamh_san" &&
    "$build/tunamh_san" >/dev/null
}

sanitized() {
  gcc "${cflags[@]}" "${san[@]}" ffi-tests/bad_inputs.c "$lib" -lm -o "$build/bad_inputs_san" &&
    "$build/bad_inputs_san" &&
    gcc "${cflags[@]}" "${san[@]}" examples-c/minimal.c "$lib" -lm -o "$build/minimal_san" &&
    "$build/minimal_san" &&
    repro _san "${san[@]}"
}

# Two threads x independent samplers of every kind under ThreadSanitizer, bit-identical to a
# one-thread run.
tsan() {
  gcc -std=c11 -O1 -g -ffp-contract=off "${warn[@]}" -fsanitize=thread -Iinclude ffi-tests/threads.c \
    "$lib" -lm -lpthread -o "$build/threads_tsan" && "$build/threads_tsan"
}

# An SVGD iteration in phases on 1-4 threads under ThreadSanitizer: bit-identical to the serial
# step, racing overlapping ranges refused.
phases_tsan() {
  gcc -std=c11 -O1 -g -ffp-contract=off "${warn[@]}" -fsanitize=thread -Iinclude ffi-tests/phases_threads.c \
    "$lib" -lm -lpthread -o "$build/phases_threads_tsan" && "$build/phases_threads_tsan"
}

echo "building: header check, C library (no_std, release), Rust reference output"
check header-current cargo run -q -p sgsample-gen-header -- --check
check header-sections cargo test -q -p sgsample-gen-header
# The C layer's Rust unit tests, built as scripts/test-rust.sh builds them (no fat LTO, target/tests),
# so that after it this reuses its build.
check rust-ffi-unit env CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
  CARGO_TARGET_DIR=target/tests cargo test -q --release -p sgsample --features std,ffi --lib ffi
check build-capi cargo build -q --release -p sgsample-capi
check rust-reference sh -c "cargo run -q --release -p sgsample --features std --example ffi_reference >$build/reference.txt"
check header-alone-c99-c11-cxx11-cxx17 header_alone
check version-vs-cargo-toml version_matches
check staticlib-no-eh-personality no_personality
check cdylib-exports-only-sgs cdylib_exports_only_sgs
check no-panic-path-linked no_panic_path
check link-staticlib-only-lm link_plain
check link-from-cxx17 link_cxx
check link-cdylib link_cdylib
check cxx-wrapper-same-bits cxx_wrapper
check c-vs-rust-bit-for-bit repro ""
check bad-input-matrix bad_inputs
check batch-vs-separate-runs batch_vs_separate
check checkpoint-export-import-resume checkpoint_resume
check tunamh-from-c tunamh_c
check asan-ubsan sanitized
check threads-tsan tsan
check svgd-phases-threads-tsan phases_tsan
echo "ffi: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
