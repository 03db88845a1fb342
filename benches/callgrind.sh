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
printf '| case | measured calls | instructions per call | where (self cost, top 3 functions) |\n'
printf '|---|---:|---:|---|\n'
for c in $cases; do
  name=${c%%:*}
  calls=${c##*:}
  file=$out/$name.out
  valgrind --tool=callgrind --callgrind-out-file="$file" \
    --toggle-collect='*measured_*' "$exe" "$name" >/dev/null 2>&1
  total=$(sed -n 's/^totals: \([0-9]*\).*/\1/p' "$file")
  # Exclusive (self) cost of the three most expensive functions (what LTO left out of line).
  top=$(callgrind_annotate "$file" 2>/dev/null | python3 -c '
import re, sys
total = int(sys.argv[1])
rows = []
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+[^:]*:(.+?) \[", line)
    if m and "measured_" not in m.group(2) and len(rows) < 3:
        name = m.group(2)
        while re.search(r"<[^<>]*>", name):
            name = re.sub(r"<[^<>]*>", "", name)
        name = name.split("::")[-1]
        cost = int(m.group(1).replace(",", ""))
        rows.append(f"{name} {cost / total:.0%}")
print(", ".join(rows))' "$total")
  printf '| %s | %s | %s | %s |\n' "$name" "$calls" "$((total / calls))" "$top"
done
