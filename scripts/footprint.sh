#!/usr/bin/env bash
# Footprint of the library on Cortex-M (the numbers are recorded in docs/footprint.md).
#
# Builds the probe examples-embedded/src/bin/footprint.rs (opt-level "s", fat LTO, one codegen
# unit, panic = abort) once without a sampler (the baseline: cortex-m-rt, semihosting, integer
# formatting, the stack probe) and once per sampler set, for Cortex-M4F in f32 and f64 and for
# Cortex-M3 (no FPU) in f32. The library's share is the difference to the baseline:
#   flash = .vector_table + .text + .rodata + .data,  RAM = .data + .bss
# broken down by symbol (sampler code, Ziggurat, read-only tables, soft-float, libm, memcpy and
# friends). Then each probe runs under QEMU and prints the worst stack use of `step` measured by
# stack painting, plus the worst over all call paths from the disassembly (tools/stack-paths.py),
# and the workspace sizes come from the library's size queries on the host.
#
# Usage: scripts/footprint.sh            (about a minute; needs the deps of scripts/install-deps.sh)
#        scripts/footprint.sh RBM-SVGD RBM-SVGD+anneal
#            (the baseline and the named variants only: a new feature's rows next to the ones
#            they are compared with, without rebuilding every other)
set -euo pipefail
cd "$(dirname "$0")/.."
fw=examples-embedded
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name target cpu machine extra-feature
configs=(
  "M4F-f32 thumbv7em-none-eabihf cortex-m4 mps2-an386 -"
  "M4F-f64 thumbv7em-none-eabihf cortex-m4 mps2-an386 fp-f64"
  "M3-f32 thumbv7m-none-eabi cortex-m3 mps2-an385 -"
)
# name features
variants=(
  "baseline -"
  "AMAGOLD fp-amagold"
  "RBM-SVGD fp-svgd"
  "RBM-SVGD+KSD fp-ksd"
  "both fp-amagold,fp-svgd"
  "stats fp-stats"
  "AMAGOLD+stats fp-amagold,fp-stats"
  "thin fp-thin"
  "RBM-SVGD+anneal fp-anneal"
  "TunaMH fp-tunamh"
  "weights fp-weights"
  "kde fp-kde"
)
if [ $# -gt 0 ]; then
  chosen=("${variants[0]}")
  for var in "${variants[@]:1}"; do
    for want in "$@"; do
      [ "${var%% *}" = "$want" ] && chosen+=("$var")
    done
  done
  [ ${#chosen[@]} -eq $(($# + 1)) ] || { echo "unknown variant among: $*" >&2; exit 2; }
  variants=("${chosen[@]}")
fi

# vector_table text rodata data bss
sections() {
  arm-none-eabi-size -A "$1" | awk '
    $1 == ".vector_table" { v = $2 } $1 == ".text" { t = $2 } $1 == ".rodata" { r = $2 }
    $1 == ".data" { d = $2 } $1 == ".bss" { b = $2 }
    END { print v + 0, t + 0, r + 0, d + 0, b + 0 }'
}

# Flash bytes per category (one symbol per address): sampler ziggurat tables softfloat libm mem
categories() {
  arm-none-eabi-nm -S -t d -C "$1" | awk '
    NF >= 4 {
      if (seen[$1]++) next
      size = $2 + 0; type = $3; name = $4
      for (i = 5; i <= NF; i++) name = name " " $i
      if (type ~ /[rR]/) c = "tables"
      else if (name ~ /ziggurat/) c = "ziggurat"
      else if (name ~ /^libm::/) c = "libm"
      else if (name ~ /compiler_builtins::(float|int)|^__aeabi_[dfliu]|^__u?(div|mod)/) c = "softfloat"
      else if (name ~ /compiler_builtins::mem|^__aeabi_mem|^mem(cpy|move|set|cmp)$/) c = "mem"
      else if (name ~ /sgsample::|_probe::/) c = "sampler"
      else c = "other"
      s[c] += size
    }
    END { print s["sampler"] + 0, s["ziggurat"] + 0, s["tables"] + 0, s["softfloat"] + 0, s["libm"] + 0, s["mem"] + 0 }'
}

# The worst stack over every call path the probe's code has, by summing frames along its call
# graph (tools/stack-paths.py): the paths the painted runs do not take (d > 1, AdaGrad with
# replacement, another soft-float routine at the bottom) included. Callbacks excluded, as above.
static_paths() { # <elf> <features>
  local root roots=()
  [[ $2 == *fp-amagold* ]] && roots+=("stack.amagold amagold_probe::five_steps")
  [[ $2 == *fp-svgd* || $2 == *fp-ksd* || $2 == *fp-anneal* ]] && roots+=("stack.svgd svgd_probe::three_steps")
  [[ $2 == *fp-thin* ]] && roots+=("stack.thin thin_probe::thin")
  [[ $2 == *fp-weights* ]] && roots+=("stack.weights weights_probe::weigh")
  [[ $2 == *fp-kde* ]] && roots+=("stack.kde kde_probe::draw_and_weigh")
  [[ $2 == *fp-tunamh* ]] && roots+=("stack.tunamh tunamh_probe::ten_steps")
  [[ $2 == *fp-stats* ]] && roots+=("stack.stats.push stats_probe::push" "stack.stats.ess_rhat_mcse stats_probe::query")
  for root in "${roots[@]}"; do
    read -r label fn <<<"$root"
    echo "  $label.static_worst_path: $(python3 tools/stack-paths.py "$1" "$fn")"
    if [ "$label" = stack.svgd ]; then
      echo "  $label.static_worst_path_without_ksd: $(python3 tools/stack-paths.py "$1" "$fn" --exclude ksd_of_iteration)"
    fi
  done
}

echo "# Flash and RAM (bytes; library share = probe with the sampler(s) minus the baseline probe)"
echo
echo "| build | sampler | flash | RAM | .text | .rodata | .data+.bss | sampler code | Ziggurat code | read-only tables | soft-float, int division | libm | memcpy/memmove | rest |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
stack_report=""
for cfg in "${configs[@]}"; do
  read -r cname target cpu machine extra <<<"$cfg"
  for var in "${variants[@]}"; do
    read -r vname feats <<<"$var"
    f=""
    [ "$feats" != "-" ] && f="$feats"
    [ "$extra" != "-" ] && f="${f:+$f,}$extra"
    (cd "$fw" && cargo build --release -q --bin footprint --target "$target" ${f:+--features "$f"})
    elf="$tmp/$cname-$vname.elf"
    cp "$fw/target/$target/release/footprint" "$elf"
    read -r v t r d b <<<"$(sections "$elf")"
    read -r cs cz ct cf cl cm <<<"$(categories "$elf")"
    if [ "$vname" = baseline ]; then
      read -r v0 t0 r0 d0 b0 <<<"$v $t $r $d $b"
      read -r cs0 cz0 ct0 cf0 cl0 cm0 <<<"$cs $cz $ct $cf $cl $cm"
      echo "| $cname | (baseline, absolute) | $((v + t + r + d)) | $((d + b)) | $t | $r | $((d + b)) | | | | | | | |"
    else
      echo "| $cname | +$vname | $((v + t + r + d - v0 - t0 - r0 - d0)) | $((d + b - d0 - b0)) | $((t - t0)) | $((r - r0)) | $((d + b - d0 - b0)) | $((cs - cs0)) | $((cz - cz0)) | $((ct - ct0)) | $((cf - cf0)) | $((cl - cl0)) | $((cm - cm0)) | $((v + t + r + d - v0 - t0 - r0 - d0 - (cs + cz + ct + cf + cl + cm) + (cs0 + cz0 + ct0 + cf0 + cl0 + cm0))) |"
    fi
    out="$tmp/$cname-$vname.txt"
    if ! timeout 60 qemu-system-arm -cpu "$cpu" -machine "$machine" -nographic \
      -semihosting-config enable=on,target=native -kernel "$elf" >"$out"; then
      echo "probe $cname $vname failed under QEMU:" >&2
      cat "$out" >&2
      exit 1
    fi
    stack_report+="$cname +$vname"$'\n'"$(grep -v checksum "$out" | sed 's/^/  /')"$'\n'
    paths=$(static_paths "$elf" "$feats")
    [ -z "$paths" ] || stack_report+="$paths"$'\n'
  done
done
echo
echo "# Stack (bytes, stack painting under QEMU; see docs/footprint.md for how to read it)"
echo
printf '%s' "$stack_report"
echo
echo "# Workspace (the library's size queries)"
echo
cargo run --release -q -p sgsample --features std --example firmware_host -- --workspace-table
