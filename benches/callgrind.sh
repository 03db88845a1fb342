#!/usr/bin/env bash
# Instruction counts per call (one AMAGOLD / SGHMC outer iteration, one RBM-SVGD / SVGD
# iteration) under `valgrind --tool=callgrind`: repeatable numbers, unlike wall-clock time on a
# shared machine. Collection is on only inside the `measured_*` functions of
# benches/instructions.rs; the count is divided by the number of measured calls.
# Needs valgrind (apt-get install valgrind). Usage: bash benches/callgrind.sh
set -euo pipefail
cd "$(dirname "$0")/.."
exe=$(cargo bench --no-run -p sgsample --bench instructions --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "instructions":
        print(m["executable"])')
out=target/callgrind
mkdir -p "$out"
cases=$(sed -n 's/^ *("\([a-z0-9_]*\)", \([0-9]*\)),$/\1:\2/p' benches/instructions.rs)
printf '| case | measured calls | instructions per call | libm exp | Ziggurat normals | median select |\n'
printf '|---|---:|---:|---:|---:|---:|\n'
for c in $cases; do
  name=${c%%:*}
  calls=${c##*:}
  file=$out/$name.out
  valgrind --tool=callgrind --callgrind-out-file="$file" \
    --toggle-collect='*measured_*' "$exe" "$name" >/dev/null 2>&1
  total=$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$file")
  # Exclusive (self) cost of the leaf functions that dominate, as shares of the total.
  shares=$(callgrind_annotate "$file" 2>/dev/null | python3 -c '
import re, sys
total = int(sys.argv[1])
want = {"libm::math::exp::exp": 0, "sgsample::ziggurat::normal": 0, "sgsample::svgd::median::select": 0}
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*?:(\S+)", line)
    if m and m.group(2) in want:
        want[m.group(2)] += int(m.group(1).replace(",", ""))
print(" | ".join(f"{v / total:.0%}" if v else "—" for v in want.values()))' "$total")
  printf '| %s | %s | %s | %s |\n' "$name" "$calls" "$((total / calls))" "$shares"
done
