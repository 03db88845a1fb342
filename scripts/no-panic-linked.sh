#!/usr/bin/env bash
# usage: scripts/no-panic-linked.sh LIB OUT_DIR CC [CFLAGS...]
#
# Fails if any panic machinery is reachable from the C API of the static library LIB. The archive
# holds all of core's objects, so a plain `nm LIB` would always show panic symbols; what matters
# is what a program that uses the library links. So this links a program that references every
# function include/sgsample.h declares, with --gc-sections (only what is reachable from the sgs_
# functions survives), and looks for panic symbols in the result. A checked index, slice or
# length the compiler cannot prove away links `panic_bounds_check`, `slice_index_fail`,
# `len_mismatch_fail` and `panic_fmt`; the panic handler itself (`rust_begin_unwind`) is linked
# only when one of them is.
set -euo pipefail
lib=$1 out=$2 cc=$3
shift 3
cd "$(dirname "$0")/.."
mkdir -p "$out"
src="$out/all_sgs_functions.c"
fns=$(grep -o '\bsgs_[a-z0-9_]*(' include/sgsample.h | tr -d '(' | sort -u)
{
  echo '#include "sgsample.h"'
  echo 'typedef void (*fn)(void);'
  echo 'fn volatile table[] = {'
  for f in $fns; do echo "  (fn)$f,"; done
  echo '};'
  echo 'int main(void) { return table[0] == 0; }'
} >"$src"
exe="$out/all_sgs_functions"
"$cc" "$@" -Iinclude "$src" "$lib" -lm -Wl,--gc-sections -o "$exe"
n=$(wc -w <<<"$fns")
syms=$(nm -C "$exe")
missing=0
for f in $fns; do grep -q " $f\$" <<<"$syms" || { echo "$f not linked" >&2; missing=1; }; done
[ "$missing" -eq 0 ] || exit 1
if grep -iE 'panic|slice_index|len_mismatch|bounds_check|rust_begin_unwind|unwrap_failed|expect_failed' <<<"$syms"; then
  echo "a panic path is reachable from the C API of $lib" >&2
  exit 1
fi
echo "$lib: $n sgs_ functions linked with --gc-sections, no panic path"
