#!/usr/bin/env bash
# The firmware under QEMU, compared bit for bit with the host:
#   * examples-embedded/ built for Cortex-M4F (thumbv7em-none-eabihf, mps2-an386) and Cortex-M3
#     without FPU (thumbv7m-none-eabi, mps2-an385), every sample printed as hex bits;
#   * examples/firmware_host.rs prints the same runs on the host: f64 from the std reference
#     implementation, f32 from the library's core;
#   * the C firmware (examples-embedded/c/, through the C API) prints the same lines for its runs,
#     and its checkpoints (exported, imported, resumed) are byte for byte those of the same C
#     program on the host.
# Any difference, a non-zero firmware exit status or a QEMU timeout fails the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

qemu_run() { # <cpu> <machine> <elf> <output file>
  local rc=0
  timeout 60 qemu-system-arm -cpu "$1" -machine "$2" -nographic \
    -semihosting-config enable=on,target=native -kernel "$3" >"$4" || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "firmware $3 on $2 exited with status $rc (124 = timeout); last lines:" >&2
    tail -n 5 "$4" >&2
    return 1
  fi
}

compare() { # <label> <firmware output> <host output>
  if ! cmp -s "$2" "$3"; then
    echo "$1: output differs from the host (firmware < > host):" >&2
    diff "$2" "$3" | head -n 20 >&2 || true
    return 1
  fi
  echo "$1: $(wc -l <"$2") lines, identical to the host"
}

cargo run --release -q -p sgsample --features std --example firmware_host >"$tmp/host.txt"
lines=$(wc -l <"$tmp/host.txt")
if [ "$lines" -lt 100 ]; then
  echo "host program printed only $lines lines" >&2
  exit 1
fi

fail=0
(cd examples-embedded && cargo build --release -q --bin firmware --target thumbv7em-none-eabihf \
  && cargo build --release -q --bin firmware --target thumbv7m-none-eabi)
for cfg in "thumbv7em-none-eabihf cortex-m4 mps2-an386" "thumbv7m-none-eabi cortex-m3 mps2-an385"; do
  read -r target cpu machine <<<"$cfg"
  elf="examples-embedded/target/$target/release/firmware"
  if qemu_run "$cpu" "$machine" "$elf" "$tmp/$target.txt"; then
    compare "Rust firmware, $cpu ($target)" "$tmp/$target.txt" "$tmp/host.txt" || fail=1
  else
    fail=1
  fi
done

# The C firmware: C main() + startup + linker script, newlib with semihosting (librdimon), linked
# against the library's thumbv7em staticlib through include/sgsample.h. It prints the AMAGOLD
# lines and those of the Student-t RBM-SVGD run (its models need no libm).
if ! out=$(cargo build --release -q -p sgsample-capi --target thumbv7em-none-eabihf 2>&1); then
  echo "$out" >&2
  exit 1
fi
# cargo warns that it drops the cdylib crate type for a bare-metal target: expected.
printf '%s\n' "$out" | grep -v -e "dropping unsupported crate type" -e "^$" || true
lib=target/thumbv7em-none-eabihf/release/libsgsample.a
c=examples-embedded/c
arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 \
  -O2 -std=c11 -ffp-contract=off -Wall -Wextra -Werror -I include \
  --specs=rdimon.specs -nostartfiles -T "$c/mps2-an386.ld" -Wl,--gc-sections -Wl,--no-warn-execstack \
  "$c/startup.c" "$c/main.c" "$lib" -o "$tmp/c-firmware.elf"
grep -E '^(amagold-|rbm-svgd-t3-)' "$tmp/host.txt" >"$tmp/host-c.txt"
if qemu_run cortex-m4 mps2-an386 "$tmp/c-firmware.elf" "$tmp/c.txt"; then
  grep -v '^checkpoint-' "$tmp/c.txt" >"$tmp/c-runs.txt" || true
  compare "C firmware, cortex-m4 (arm-none-eabi-gcc + libsgsample.a)" "$tmp/c-runs.txt" "$tmp/host-c.txt" \
    || fail=1
else
  fail=1
fi

# Checkpoints: the C firmware's "checkpoint-" lines (AMAGOLD f64 and f32 exported inside the
# warm-up, then imported into another state and run on) against the same program built for the
# host: the same bytes, so a checkpoint written on either platform loads on the other.
if ! out=$(cargo build --release -q -p sgsample-capi 2>&1); then
  echo "$out" >&2
  exit 1
fi
gcc -O2 -std=c11 -ffp-contract=off -Wall -Wextra -Werror -I include "$c/main.c" \
  target/release/libsgsample.a -lm -o "$tmp/c-host"
"$tmp/c-host" | grep '^checkpoint-' >"$tmp/ckpt-host.txt"
grep '^checkpoint-' "$tmp/c.txt" >"$tmp/ckpt-m4.txt" || true
if [ "$(wc -l <"$tmp/ckpt-host.txt")" -ne 4 ]; then
  echo "the host C program printed $(wc -l <"$tmp/ckpt-host.txt") checkpoint lines, not 4" >&2
  fail=1
else
  compare "checkpoints, cortex-m4 vs x86-64 (export, import, resume)" "$tmp/ckpt-m4.txt" \
    "$tmp/ckpt-host.txt" || fail=1
fi

exit "$fail"
